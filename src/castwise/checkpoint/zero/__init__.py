"""DeepSpeed ZeRO checkpoints (stages 1, 2 and 3), read without DeepSpeed and without running code.

A checkpoint folder (its ``latest`` tag) or one ``global_stepN`` folder reads as one weight source
whose trainable parameters are the fp32 master weights rebuilt from every rank's partitions.
"""

from castwise.checkpoint.zero.files import is_tag_folder, tag_folder, tags_without_latest
from castwise.checkpoint.zero.reader import ZeroReader, ZeroSummary

__all__ = ["ZeroReader", "ZeroSummary", "is_tag_folder", "tag_folder", "tags_without_latest"]
