"""A real ``transformers.Trainer`` run under DeepSpeed with ``CastwiseCallback`` (bf16, save dtype
bf16) on the tiny Llama of test_transformers_trainer.py, its head tied to its embedding; run under
``torchrun --nproc_per_node=2`` with ``DS_ACCELERATOR=cpu``. Each case trains two steps, saves
``checkpoint-2`` and ``trainer.save_model(CASE/final)``; rank 0 writes the callback's plan to
``CASE-plan.txt``."""

from __future__ import annotations

import argparse
import os
from pathlib import Path

import transformers
from accelerate.state import AcceleratorState
from test_transformers_trainer import Tokens, tiny_llama
from transformers.integrations.deepspeed import unset_hf_deepspeed_config

from castwise.integrations.transformers import CastwiseCallback

CASES = {
    "zero3-gathered": {"stage": 3, "stage3_gather_16bit_weights_on_model_save": True},
    "zero3": {"stage": 3},
    "zero2": {"stage": 2},
}


def run(name: str, out: Path) -> None:
    model = tiny_llama()
    model.config.tie_word_embeddings = True  # as most small chat models: the head is the embedding
    model.lm_head.weight = model.model.embed_tokens.weight
    deepspeed = {
        "train_micro_batch_size_per_gpu": "auto",
        "gradient_accumulation_steps": "auto",
        "zero_optimization": CASES[name],
        "bf16": {"enabled": "auto"},
        "zero_allow_untested_optimizer": True,
    }
    args = transformers.TrainingArguments(
        output_dir=str(out / name),
        max_steps=2,
        per_device_train_batch_size=2,
        learning_rate=1e-2,
        save_strategy="steps",
        save_steps=2,
        bf16=True,
        use_cpu=True,
        deepspeed=deepspeed,
        report_to=[],
        disable_tqdm=True,
        optim="adamw_torch",
    )
    callback = CastwiseCallback("bf16-mixed", save_dtype="bf16")
    trainer = transformers.Trainer(model=model, args=args, train_dataset=Tokens(), callbacks=[callback])
    trainer.train()
    trainer.save_model(str(out / name / "final"))
    if trainer.is_world_process_zero():
        (out / f"{name}-plan.txt").write_text(str(callback.plan))
    trainer.accelerator.wait_for_everyone()
    AcceleratorState._reset_state(True)  # the next case brings another DeepSpeed config
    unset_hf_deepspeed_config()


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--cases", nargs="*", default=list(CASES))
    arguments = parser.parse_args()
    for name in arguments.cases:
        run(name, arguments.out)


if __name__ == "__main__":
    os.environ.setdefault("OMP_NUM_THREADS", "1")
    main()
