"""The report data ``cw.diagnose`` returns (plain dataclasses), its JSON schema and reader, and the
way its figures are written as text; every other doctor sub-package reads or fills it."""
