"""boardcert's scheduling of pytest-xdist's workers: xdist's scheduling by scope
(LoadScopeScheduling) with boardcert's units and order (boardcert.speed.distribution). It
overrides and reads xdist's internals: imported only once boardcert.speed.patches found them."""

from __future__ import annotations

from typing import Any

from xdist.scheduler.loadscope import LoadScopeScheduling

from boardcert.speed.distribution import given_in_flight, long_tests, unit_cost, units


class Longest(LoadScopeScheduling):
    """pytest-xdist's scheduling by scope, with boardcert's units and order; work starts with
    the first worker that has collected (they collect the same tests: each later collection
    is checked against it), the others join as they finish collecting (a worker slow to
    start may find that the others have done everything)."""

    units: dict[str, str] = {}
    long: set[str] = set()  # long_tests(units)
    in_flight = 1

    @property
    def collection_is_completed(self) -> bool:
        return bool(self.registered_collections)

    def schedule(self) -> None:
        if self.collection is None:
            self.collection = list(next(iter(self.registered_collections.values())))
            self.in_flight = given_in_flight(self.config)
            self.units = units(self.collection, self.numnodes, self.in_flight)
            self.long = long_tests(self.units)
            for nodeid in self.collection:
                self.workqueue.setdefault(self._split_scope(nodeid), {})[nodeid] = False
        for ahead in (0, 1):  # idle workers first, then one more for a worker on its last test
            for node in self.nodes:
                self._reschedule(node, ahead)

    def _split_scope(self, nodeid: str) -> str:
        return self.units.get(nodeid) or nodeid.split("::", 1)[0]

    def _assign_work_unit(self, node: Any) -> None:
        """The longest unit left, but to a worker still running a long test of its own (a
        stateful part, the first of a unit of property tests side by side), which needs the
        next before it runs it, the shortest that holds no long test, if one is left: a long
        unit queued behind a stateful part finished 4 s after the others at 100 ms, and so did
        a stateful part queued behind another. (Queued behind a short test, the longest: given
        the shortest each time, the long units were left for the end.)"""
        costs = {scope: unit_cost(scope, tests, self.in_flight)
                 for scope, tests in self.workqueue.items()}
        pending = [nodeid for tests in self.assigned_work.get(node, {}).values()
                   for nodeid, done in tests.items() if not done]
        if self.long.intersection(pending):
            short = {scope: cost for scope, cost in costs.items()
                     if not self.long.intersection(self.workqueue[scope])}
            chosen = min(short or costs, key=costs.__getitem__)  # the first of equals
        else:
            chosen = max(costs, key=costs.__getitem__)  # the first of equals: collection order
        self.workqueue.move_to_end(chosen, last=False)
        super()._assign_work_unit(node)

    def _reschedule(self, node: Any, ahead: int = 1) -> None:
        # xdist's own waits for fewer than 3 pending tests; with units of one test that holds
        # back work another worker could start. A worker runs a test once it has the next, so
        # one with a single test gets a second unit at once, even while others still collect
        # (given one unit, the first to collect held its stateful part unrun until the last
        # worker had collected): the shortest, as _assign_work_unit picks behind a long test,
        # not the other stateful part.
        if node.shutting_down or node not in self.registered_collections:
            return
        while self.workqueue and self._pending_of(self.assigned_work[node]) <= ahead:
            if self._runs_alone(node):
                node.shutdown()  # it runs its long test and ends; the others take the rest
                return
            self._assign_work_unit(node)
        if not self.workqueue:
            node.shutdown()

    def _runs_alone(self, node: Any) -> bool:
        """Whether the worker runs a long test and the units left are no more than the other
        workers still taking work: whatever is queued behind its long test waits for it (a
        stateful part behind another ended a run at 100 ms 4 s after the other workers; so did
        a module of 3 s behind a stateful part, taken when a worker was free 3 s sooner). Shut
        down, the worker runs its long test at once, and the workers that free up take the
        rest. (Behind a long test the shortest unit without one goes first.)"""
        pending = [nodeid for tests in self.assigned_work.get(node, {}).values()
                   for nodeid, done in tests.items() if not done]
        if not self.long.intersection(pending):
            return False
        others = [other for other in self.nodes if other is not node and not other.shutting_down]
        return len(self.workqueue) <= len(others)
