"""The report for people: rich text for a terminal and one self-contained HTML page with inline SVG
charts (a new chart goes in ``charts``). Renderers read report data and decide nothing."""
