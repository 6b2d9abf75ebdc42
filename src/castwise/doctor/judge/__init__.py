"""Judging what was measured: the verdict per policy, the findings (a new finding goes in
``findings``), the recommendation and the searches for modules to keep out of low precision."""
