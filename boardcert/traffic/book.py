"""What the traffic showed, kept as the reports need it (`Book`): the operations the client
used, each client rule broken (counted, with the first request that broke it), and, for the
proxy, each requirement judged on each operation (counted, with the first few answers that
failed it). Nothing else of the traffic is kept: a body stays only as long as the evidence of
a finding or a failure needs it.

`add` never raises: an error of boardcert's while judging is kept as boardcert's error (a bug
in boardcert, never the client's or the server's), and the traffic goes on.
"""

from __future__ import annotations

import threading
import traceback
from collections import Counter
from dataclasses import dataclass, field
from datetime import UTC, datetime
from urllib.parse import parse_qsl

from boardcert.traffic import answered, sent
from boardcert.traffic.answered import Judgement
from boardcert.traffic.boards import Boards
from boardcert.traffic.seen import Seen
from boardcert.traffic.sent import Finding

MAX_LABELS = 200  # operations and paths listed one by one
KEPT = 3  # failing answers kept as evidence per requirement and operation
ERRORS_KEPT = 20


@dataclass
class Used:
    """An operation of section 4 (or a former or unknown path) the client called."""

    label: str
    operation: int | None
    kind: str  # operation | former | unknown
    requests: int = 0
    statuses: Counter[str] = field(default_factory=Counter)
    rules: list[str] = field(default_factory=list)  # the client rules broken there


@dataclass
class Broken:
    """One client rule broken at one operation: how often, and the first request."""

    finding: Finding
    label: str
    first: Seen
    count: int = 0


@dataclass
class Judged:
    """One requirement judged on one operation from the answers."""

    requirement: str
    operation: int
    passed: int = 0
    failed: int = 0
    waiting: int = 0  # refusals that count once the operation is seen to succeed
    problems: list[str] = field(default_factory=list)
    evidence: list[Seen] = field(default_factory=list)


class Book:
    """Everything the reports need from the traffic; `add` each exchange as it completes."""

    def __init__(self, key: str | None = None, answers: bool = False) -> None:
        self.key = key  # the server's key, when boardcert knows it (serve)
        self.answers = answers  # judge the answers too (the proxy)
        self.boards = Boards()  # the board model, fed by the traffic (with `answers`)
        self.started = datetime.now(UTC)
        self.requests = 0
        self.used: dict[str, Used] = {}
        self.broken: dict[tuple[str, str], Broken] = {}
        self.judged: dict[tuple[int, str], Judged] = {}
        self.working: set[int] = set()  # operations seen answered 2xx
        self.keys: set[str] = set()  # key values the traffic carried (masked in every file)
        self.no_answer: list[Seen] = []  # requests the server did not answer (the first few)
        self.unanswered = 0
        self.errors: list[str] = []  # boardcert's own errors while judging
        self._lock = threading.Lock()

    def add(self, seen: Seen) -> None:
        """Judge one exchange and keep what the reports need of it."""
        try:
            findings = sent.judge(seen, self.key)
            judgements = answered.judge(seen, findings) + self.boards.judge(seen) \
                if self.answers else []
        except Exception as exc:  # noqa: BLE001 - boardcert's bug, never the traffic's
            with self._lock:
                self.requests += 1
                self._error(seen, exc)
            return
        with self._lock:
            self.requests += 1
            self._keys(seen)
            self._use(seen, findings)
            for judgement in judgements:
                self._judge(seen, judgement)
            if seen.status is None:
                self.unanswered += 1
                if len(self.no_answer) < KEPT:
                    self.no_answer.append(seen)
            elif 200 <= seen.status < 300 and seen.operation is not None:
                self.working.add(seen.operation)

    def _use(self, seen: Seen, findings: list[Finding]) -> None:
        kind = "operation" if seen.operation else "former" if seen.former else "unknown"
        label = seen.label if kind != "unknown" else f"{seen.method} {_short(seen.target)}"
        if kind == "unknown" and label not in self.used and len(self.used) >= MAX_LABELS:
            label = "other paths"  # a client calling ever new unknown paths: kept in bounds
        used = self.used.setdefault(label, Used(label, seen.operation, kind))
        used.requests += 1
        used.statuses[str(seen.status) if seen.status is not None else "no answer"] += 1
        for finding in findings:
            broken = self.broken.get((finding.rule, label))
            if broken is None:
                broken = self.broken[(finding.rule, label)] = Broken(finding, label, seen)
                used.rules.append(finding.rule)
            broken.count += 1

    def _judge(self, seen: Seen, judgement: Judgement) -> None:
        key = (judgement.operation, judgement.requirement)
        judged = self.judged.setdefault(key, Judged(judgement.requirement, judgement.operation))
        if judgement.failed:
            judged.failed += 1
            if len(judged.evidence) < KEPT:
                judged.evidence.append(seen)
                judged.problems.append(judgement.problem)
        elif judgement.if_it_works:
            judged.waiting += 1
        else:
            judged.passed += 1

    def _keys(self, seen: Seen) -> None:
        """Every value that may be a key: of X-API-Key and the headers and query parameters
        a key is put in by mistake (sent.KEY_HEADERS, sent.KEY_PARAMETER)."""
        values = [v for n, v in seen.request_headers
                  if n == sent.KEY_HEADER or n in sent.KEY_HEADERS]
        values += [v for n, v in parse_qsl(seen.query) if sent.KEY_PARAMETER.fullmatch(n)]
        for value in filter(None, (v.strip() for v in values)):
            self.keys |= {value, value.split(" ", 1)[-1]}  # "Bearer <token>": the token too

    def _error(self, seen: Seen, exc: Exception) -> None:
        if len(self.errors) < ERRORS_KEPT:
            where = traceback.extract_tb(exc.__traceback__)[-1]
            self.errors.append(f"{type(exc).__name__}: {exc} (judging {seen.method} "
                               f"{_short(seen.target)}, at {where.name}:{where.lineno})")


def _short(target: str, most: int = 120) -> str:
    return target if len(target) <= most else f"{target[:most]}…"
