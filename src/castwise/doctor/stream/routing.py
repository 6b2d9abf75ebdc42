"""MoE routing when streaming: each block's routers under a policy against fp32, summed over the blocks.

The in-memory doctor compares the experts every router chooses in one eval forward of the whole
model under a policy with fp32's. Streamed, each block's routers are run on the hidden state that
block receives in the propagated pass (the policy's own, fp32's for the reference), so the counts
are the same ones, gathered a block at a time. When a policy changes more than
:data:`ROUTING_WARNING` of the choices, one more propagated pass with the routers kept in fp32
counts again, as the in-memory doctor's re-run does.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from castwise.doctor.measure.routing import ROUTING_WARNING, Choices, changed_choices, find_routers, route, router_globs
from castwise.doctor.measure.runner import Call
from castwise.doctor.report.data import Routing
from castwise.doctor.stream.frame import BlockFrame
from castwise.doctor.stream.passes import REFERENCE
from castwise.policy import Policy


class RoutingCount:
    """Token choices compared and changed per policy, block by block (fp32's choices kept per block)."""

    def __init__(self, reference: dict[int, Choices] | None = None) -> None:
        self.reference: dict[int, Choices] = {} if reference is None else reference
        self.counts: dict[str, tuple[int, int]] = {}
        self.routers: dict[str, None] = {}
        self.globs: dict[str, None] = {}

    def __call__(self, index: int, block: BlockFrame, policy: Policy, call: Call, seed: int) -> None:
        """Record the choices of block ``index``'s routers under ``policy`` on ``call``."""
        routers = find_routers(block)
        if not routers:
            return
        choices = route(block, policy, call, seed)
        if choices is None:
            return  # the policy raised: the measured runs report it
        if policy == REFERENCE:
            self.reference[index] = choices
            self.routers.update(dict.fromkeys(routers))
            self.globs.update(dict.fromkeys(router_globs(routers)))
            return
        tokens, changed = changed_choices(self.reference.get(index, {}), choices)
        before = self.counts.get(str(policy), (0, 0))
        self.counts[str(policy)] = (before[0] + tokens, before[1] + changed)

    def report(self, policies: Sequence[Policy], again: Callable[[Policy, RoutingCount], None]) -> list[Routing] | None:
        """Per low-precision policy, the changed choices; ``again(policy, count)`` runs one more
        propagated pass counting into ``count``, for policies above the warning with routers kept."""
        if not self.routers:
            return None
        results = []
        for policy in (p for p in policies if p.is_low_precision and str(p) in self.counts):
            tokens, changed = self.counts[str(policy)]
            entry = Routing(str(policy), list(self.routers), tokens, changed)
            if tokens and changed / tokens > ROUTING_WARNING:
                kept = policy.replace(keep_fp32=policy.keep_fp32 + tuple(self.globs))
                count = RoutingCount(self.reference)
                again(kept, count)
                if str(kept) in count.counts:
                    entry.keep_policy, entry.changed_kept = str(kept), count.counts[str(kept)][1]
            results.append(entry)
        return results
