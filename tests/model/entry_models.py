"""The models whose entry points the entry-point tests call: a real OpenCLIP CLIP, transformers'
CLIPModel and a user's module with several methods, each tiny and built from a config.

OpenCLIP imports torchvision, and the only torchvision wheel the package registry offers for torch
2.13 is a CUDA build: beside torch's CPU build its compiled ops (``torchvision/_C.so``) do not
load, and its import then fails registering fake kernels for ``torchvision::nms`` and ``qnms``
(``operator torchvision::nms does not exist``). Installed in site-packages, that torchvision would
break every import of transformers' models and of ``lightning.pytorch`` in every process, so
``make install`` puts OpenCLIP and its torchvision in a folder of their own, ``.venv/open_clip``
(see the Makefile), which only :func:`import_open_clip` puts on the path. When torchvision's
compiled ops do not load, it declares the two operators (as torchvision's C++ declares them) so
that torchvision's Python code, and with it OpenCLIP, imports; OpenCLIP's models use no compiled
torchvision op.
"""

from __future__ import annotations

import importlib
import sys
from pathlib import Path
from types import ModuleType

import torch
from torch import nn
from transformers import CLIPConfig, CLIPModel

OPEN_CLIP_DIR = Path(sys.prefix) / "open_clip"
"""Where ``make install`` puts OpenCLIP beside its torchvision, out of site-packages."""

_TORCHVISION_FAKE_KERNEL_OPS = ("nms", "qnms")
_declared: list[torch.library.Library] = []


def import_open_clip() -> ModuleType:
    """The ``open_clip`` package, importable beside torch's CPU build (see the module docstring)."""
    if OPEN_CLIP_DIR.is_dir() and str(OPEN_CLIP_DIR) not in sys.path:
        sys.path.append(str(OPEN_CLIP_DIR))
    try:
        importlib.import_module("torchvision")
    except ModuleNotFoundError as missing:
        raise ModuleNotFoundError(f"OpenCLIP and its torchvision are missing: `make install` puts them in {OPEN_CLIP_DIR}") from missing
    except RuntimeError:
        extension = sys.modules.get("torchvision.extension")
        if extension is None or extension._has_ops():
            raise
        _forget("torchvision")
        _declare_torchvision_ops()
    return importlib.import_module("open_clip")


def _forget(package: str) -> None:
    """Drop what a failed import of ``package`` left in ``sys.modules``, so it can be imported again."""
    for name in [n for n in sys.modules if n == package or n.startswith(package + ".")]:
        del sys.modules[name]


def _declare_torchvision_ops() -> None:
    library = torch.library.Library("torchvision", "FRAGMENT")
    for op in _TORCHVISION_FAKE_KERNEL_OPS:
        library.define(f"{op}(Tensor dets, Tensor scores, float iou_threshold) -> Tensor")
    _declared.append(library)  # the declarations last as long as the library object


def open_clip_model() -> nn.Module:
    """``open_clip.create_model("ViT-B-32", pretrained=None)`` (random weights, as in the issue), its
    towers shrunk to a tiny width through ``create_model``'s config overrides."""
    open_clip = import_open_clip()
    torch.manual_seed(0)
    vision = {"layers": 1, "width": 32, "head_width": 16, "patch_size": 8, "image_size": 16}
    text = {"context_length": 8, "vocab_size": 64, "width": 32, "heads": 2, "layers": 1}
    model = open_clip.create_model("ViT-B-32", pretrained=None, embed_dim=16, vision_cfg=vision, text_cfg=text)
    return model.eval()


def transformers_clip() -> nn.Module:
    """transformers' ``CLIPModel`` from a tiny ``CLIPConfig``."""
    torch.manual_seed(0)
    common = {"hidden_size": 32, "intermediate_size": 64, "num_hidden_layers": 1, "num_attention_heads": 2}
    config = CLIPConfig(
        text_config={**common, "vocab_size": 64, "max_position_embeddings": 8},
        vision_config={**common, "image_size": 16, "patch_size": 8},
        projection_dim=16,
    )
    return CLIPModel(config).eval()


class Retriever(nn.Module):
    """A user's module with several entry points besides ``forward``."""

    def __init__(self) -> None:
        super().__init__()
        self.embed, self.project, self.norm = nn.Embedding(64, 16), nn.Linear(16, 16), nn.LayerNorm(16)
        self.score_head = nn.Linear(16, 1)

    def forward(self, ids: torch.Tensor) -> torch.Tensor:
        return self.score_head(self.encode_tokens(ids)).squeeze(-1)

    def encode_tokens(self, ids: torch.Tensor) -> torch.Tensor:
        """One vector per token."""
        return self.norm(self.project(self.embed(ids)))

    def encode_features(self, features: torch.Tensor, scale: float = 1.0) -> torch.Tensor:
        """Project floating features (cast to the compute dtype under ``-true`` policies)."""
        return self.project(features) * scale

    def pool(self, ids: torch.Tensor, mask: torch.Tensor) -> dict[str, torch.Tensor]:
        """Mean over unmasked tokens, with the count of tokens used (an integer tensor)."""
        tokens = self(ids).unsqueeze(-1) * self.encode_tokens(ids)
        kept = mask.sum(-1, keepdim=True)
        return {"pooled": (tokens * mask.unsqueeze(-1)).sum(1) / kept, "kept": kept}

    def similarity(self, ids: torch.Tensor, features: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """Token-feature similarities and the projected features (calls another entry point)."""
        projected = self.encode_features(features)
        return self.encode_tokens(ids) @ projected.T, projected

    @property
    def width(self) -> int:
        return self.project.in_features


def retriever() -> nn.Module:
    torch.manual_seed(0)
    return Retriever().eval()
