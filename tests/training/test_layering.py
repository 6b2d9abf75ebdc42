import ast
from pathlib import Path

import castwise as cw


def test_training_imports_only_policy_and_itself_from_castwise():
    package = Path(cw.__file__).parent / "training"
    imported = []
    for source in package.glob("*.py"):
        for node in ast.walk(ast.parse(source.read_text())):
            if isinstance(node, ast.ImportFrom) and node.module:
                imported.append((source.name, node.module))
            elif isinstance(node, ast.Import):
                imported += [(source.name, alias.name) for alias in node.names]
    castwise = [(f, m) for f, m in imported if m.split(".")[0] == "castwise"]
    assert [(f, m) for f, m in castwise if not m.startswith(("castwise.policy", "castwise.training"))] == []
    assert ("monitor.py", "castwise.policy") in castwise
