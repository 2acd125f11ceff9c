"""The internals of other libraries that a verdict depends on, each checked as the run starts
(`check`): a misfit stops the run with a CompatError (exit 2) rather than generate other
requests than the spec and the seed give, or let a failure go unnamed: an upgrade must never
change a verdict silently.

- Hypothesis's pool of literals (`providers._get_local_constants`): emptied, so that nothing is
  drawn from the string and number literals of boardcert's own modules (`only_the_seed`).
- schemathesis's state machine (eight of its modules): reshaped so that the rules it can choose
  never depend on what the server answered (`answer_independent`).
- schemathesis's failures, by class (`failure_kind`): each known by the code schemathesis keeps
  for it and the check that reports it; one of another class is a CompatError when it is met,
  never dropped.
- schemathesis's coverage scenarios that send a request in another shape (`probe_scenarios`):
  the same as schemathesis's own sets of probes.
- schemathesis's pytest items: the operation each tests (`operation_label`).
- pytest's place for its junit.xml writer (`_pytest.junitxml.xml_key`): boardcert's JUnit
  writer takes it, where Hypothesis's statistics and record_testsuite_property look
  (`junit_slot`; checked when a run writes junit.xml).

What only changes how a run goes, not what it finds, is boardcert.compat_fallbacks's (a misfit
takes the plain way, and the run facts say so); what only makes a run faster, boardcert.speed's
(a misfit leaves its patch off).
"""

from __future__ import annotations

from dataclasses import fields
from functools import cache, partial
from importlib import import_module
from importlib.metadata import PackageNotFoundError, version
from inspect import getmembers, signature
from typing import Any

from boardcert.errors import CompatError

_NONE: list[Any] = []  # the empty pool of literals, made once


def version_of(name: str) -> str:
    try:
        return f"{name} {version(name)}"
    except PackageNotFoundError:
        return f"{name} (version unknown)"


def _stop(library: str, what: str, why: object, consequence: str) -> CompatError:
    return CompatError(
        f"{version_of(library)}: {what} is not what boardcert knows ({why}); {consequence}, so "
        f"the run stops. Install a {library} version of pyproject.toml's range that boardcert "
        f"was released with, or a boardcert that knows this one (tox -e newest checks).")


def only_the_seed() -> None:
    """What is generated comes from the spec and the seed alone. Hypothesis mixes the string
    and number literals of "local" modules (outside site-packages and tests: boardcert's own,
    some 560, run from a checkout or an editable install, not from a wheel) into what it
    draws, and which modules were imported so far decides which: the same seed drew other
    requests from a checkout than from an installed wheel, and after any change to a literal
    anywhere in boardcert. (Scanning them also cost each run some 40 ms.) Checked: a provider
    of Hypothesis's now finds no local literal."""
    consequence = "the literals of boardcert's own modules would change what is generated"
    try:
        from hypothesis.internal.conjecture import providers
        from hypothesis.internal.constants_ast import Constants

        if not callable(providers._get_local_constants):
            raise AttributeError("providers._get_local_constants is not a function")
        if not _NONE:
            _NONE.append(Constants())
        providers._get_local_constants = _no_local_constants
        found = providers.HypothesisProvider(None)._local_constants
    except (ImportError, AttributeError, TypeError) as exc:
        raise _stop("hypothesis", "its pool of local literals", exc, consequence) from None
    if found is not _NONE[0]:
        raise _stop("hypothesis", "its pool of local literals",
                    "a provider still finds them elsewhere", consequence)


def _no_local_constants() -> Any:
    return _NONE[0]


def junit_slot() -> Any:
    """Where pytest keeps its junit.xml writer: boardcert.outputs.junit puts its own there, so
    that Hypothesis's statistics and `record_testsuite_property` reach junit.xml. Checked: a
    pytest StashKey by that name."""
    try:
        import pytest
        from _pytest.junitxml import xml_key

        if not isinstance(xml_key, pytest.StashKey):
            raise TypeError(f"xml_key is a {type(xml_key).__name__}, not a StashKey")
    except (ImportError, TypeError) as exc:
        raise _stop("pytest", "where it keeps its junit.xml writer", exc,
                    "junit.xml would lose Hypothesis's statistics and the suite's properties"
                    ) from None
    return xml_key


def check() -> None:
    """At start-up: the literal pool emptied; every schemathesis internal the state machine's
    reshaping uses still there (the reshaping checks the rest as it is made); schemathesis's
    failures, probe scenarios and items as boardcert knows them."""
    only_the_seed()
    _stateful_internals()
    failure_classes()
    probe_scenarios()
    _schemathesis_item()


def _stateful_internals() -> dict[str, Any]:
    """schemathesis's (and Hypothesis's) internals that `answer_independent` uses, by name."""
    consequence = "the stateful scenarios would follow the server's answers"
    try:
        from hypothesis.stateful import RULE_MARKER, Bundle
        from schemathesis.core.parameters import CONTAINER_TO_LOCATION
        from schemathesis.core.result import Ok
        from schemathesis.core.transforms import UNRESOLVABLE
        from schemathesis.generation.feedback import NO_FEEDBACK
        from schemathesis.generation.stateful.state_machine import APIStateMachine, StepInput
        from schemathesis.specs.openapi import stateful as openapi_stateful
        from schemathesis.specs.openapi.expressions import MultiMatch

        machine = openapi_stateful.OpenAPIStateMachine
        for name in ("_get_target_for_result", "_feeds_later_steps"):  # replaced below
            if not callable(getattr(machine, name, None)):
                raise AttributeError(f"OpenAPIStateMachine.{name} is gone")
        if "applied_parameters" not in getattr(StepInput, "__slots__", ()):
            raise AttributeError("StepInput.applied_parameters is gone")
        if not callable(getattr(APIStateMachine, "step", None)):
            raise AttributeError("APIStateMachine.step is gone")
        found = {"RULE_MARKER": RULE_MARKER, "Bundle": Bundle, "Ok": Ok, "StepInput": StepInput,
                 "CONTAINER_TO_LOCATION": CONTAINER_TO_LOCATION, "UNRESOLVABLE": UNRESOLVABLE,
                 "NO_FEEDBACK": NO_FEEDBACK, "MultiMatch": MultiMatch}
        for name in ("_step_case_strategy", "transition", "is_transition_allowed",
                     "is_root_allowed", "normalize_name"):
            found[name] = getattr(openapi_stateful, name)
            if not callable(found[name]):
                raise AttributeError(f"specs.openapi.stateful.{name} is not a function")
    except (ImportError, AttributeError, TypeError) as exc:
        raise _stop("schemathesis", "its state machine", exc, consequence) from None
    return found


def answer_independent(machine: type, root: Any) -> type:
    """schemathesis's machine, reshaped so that which rules it can choose never depends on what
    the server answered; a CompatError when schemathesis's internals do not fit.

    Hypothesis replays the start of earlier scenarios when it makes new ones, and stops with
    FlakyStrategyDefinition when the same draws meet a different set of valid rules. In
    schemathesis's machine that set follows the server: a producer's answer enters the bundle of
    its links only if its status is the link's (200), a link draws its case with or without the
    ids the answer carried, and a root may be called again only if its answer fed a link. The
    server state left by earlier scenarios changes those answers (a 409 to a second attach, a
    429, ...). Here every call of a producer enters its bundle, a link's case is drawn alike
    whatever the answer and gets the answer's ids afterwards (only from a 2xx; else the arena
    points it at the board), and every root that has links counts as productive.

    Also adds operation `root` (a boardcert.interface.spec Operation) as an entry point:
    schemathesis's
    dependency analysis cannot see where organizationId comes from (op 1's inner shapes are not
    shown), so it never starts at op 2, the only way to a project of the scenario's own."""
    found = _stateful_internals()
    try:
        return _reshaped(machine, root, found)
    except (AttributeError, TypeError, KeyError, ValueError) as exc:
        raise _stop("schemathesis", "its state machine", f"{type(exc).__name__}: {exc}",
                    "the stateful scenarios would follow the server's answers") from None


def _reshaped(machine: type, root: Any, found: dict[str, Any]) -> type:
    from hypothesis import strategies as st

    schema, bundles = machine.schema, machine.bundles
    catch_all = found["Bundle"]("catch_all")
    rule = found["transition"]  # makes a rule

    def follow(link: Any, drawn: tuple[Any, Any]) -> Any:
        """A link's step: the case drawn for its target, with the ids of the producer's answer put
        in where the link says, if that answer was a 2xx and carries them."""
        output, case = drawn
        transition = link.extract(output)
        applied: list[tuple[Any, str | None]] = []
        if 200 <= output.response.status_code < 300:
            for container, extracted in transition.parameters.items():
                for name, param in extracted.items():
                    value = param.value.ok() if isinstance(param.value, found["Ok"]) else None
                    if isinstance(value, found["MultiMatch"]):
                        value = value.values[0] if value.values else None
                    if value is None or value is found["UNRESOLVABLE"]:
                        continue
                    setattr(case, container, {**(getattr(case, container) or {}), name: value})
                    applied.append((found["CONTAINER_TO_LOCATION"][container], name))
        return found["StepInput"](case=case, transition=transition, applied_parameters=applied)

    def cases(operation: Any) -> Any:
        modes = schema.config.generation_for(operation=operation, phase="stateful").modes
        return found["_step_case_strategy"](operation, modes, feedback=found["NO_FEEDBACK"])

    namespace: dict[str, Any] = {  # schemathesis's link rules, replaced below
        name: None for name, value in vars(machine).items()
        if getattr(getattr(value, found["RULE_MARKER"], None), "bundles", None)}
    producers: dict[str, str] = {}
    for operation in machine._transitions.operations.values():
        for link in operation.incoming:
            bundle_name = f"{link.source.label} -> {link.status_code}"
            producers.setdefault(link.source.label, bundle_name)
            name = "LINK__" + found["normalize_name"](link.full_name)
            namespace[name] = rule(
                name=name, target=catch_all, source_bundle=bundles[bundle_name],
                precondition=found["is_transition_allowed"](link.source.label, link.target.label),
                input=st.tuples(bundles[bundle_name], cases(link.target)).map(
                    partial(follow, link)))
    name = f"RANDOM__{root.operation_id}"
    namespace[name] = rule(
        name=name, target=catch_all, precondition=found["is_root_allowed"](root.label),
        input=cases(schema[root.path][root.method]).map(found["StepInput"].initial))
    namespace |= {"root_rules": machine.root_rules | {name},
                  "_root_labels": machine._root_labels | {root.label},
                  "_producers": producers,
                  "_get_target_for_result": _target_for, "_feeds_later_steps": _feeds}
    reshaped = type(machine.__name__, (machine,), namespace)
    # as Hypothesis finds a machine's rules: every link rule is one of ours, and each of ours
    # (and the new root) is a rule
    rules = {name: getattr(value, found["RULE_MARKER"], None)
             for name, value in getmembers(reshaped)}
    linked = {name for name, made in rules.items() if getattr(made, "bundles", None)}
    ours = {n for n in namespace if n.startswith("LINK__")} | {name}
    if linked != ours - {name} or not linked or rules.get(name) is None:
        raise ValueError(f"link rules not replaced: {sorted(linked ^ (ours - {name}))} "
                         f"({len(linked)} found)")
    return reshaped


def _target_for(self: Any, result: Any) -> str | None:
    return self._producers.get(result.case.operation.label)


def _feeds(self: Any, output: Any) -> bool:
    return output.case.operation.label in self._producers


# --- schemathesis's failures, scenarios and items ------------------------------------------

# The failures boardcert.properties.judging names requirements for, each by the code
# schemathesis keeps for it ("never renumbered or reused") and a check it says reports it:
# name -> (module, code, check). A subclass comes before its base (failure_kind: the first).
FAILURES: dict[str, tuple[str, str, str | None]] = {
    "CustomFailure": ("schemathesis.core.failures", "ST901", None),  # boardcert's own checks
    "ContentTypeServerError": ("schemathesis.core.failures", "ST102", "not_a_server_error"),
    "ServerError": ("schemathesis.core.failures", "ST101", "not_a_server_error"),
    "UndefinedStatusCode": ("schemathesis.openapi.checks", "ST103", "status_code_conformance"),
    "MissingContentType": ("schemathesis.openapi.checks", "ST104",
                           "response_schema_conformance"),
    "UndefinedContentType": ("schemathesis.openapi.checks", "ST105", "content_type_conformance"),
    "MalformedMediaType": ("schemathesis.openapi.checks", "ST106", "content_type_conformance"),
    "JsonSchemaError": ("schemathesis.openapi.checks", "ST108", "response_schema_conformance"),
    "MalformedJson": ("schemathesis.core.failures", "ST109", "response_schema_conformance"),
    "ContentDeserializationError": ("schemathesis.openapi.checks", "ST110",
                                    "response_schema_conformance"),
    "DiscriminatorMismatch": ("schemathesis.openapi.checks", "ST111",
                              "response_schema_conformance"),
    "AcceptedNegativeData": ("schemathesis.core.failures", "ST201", "negative_data_rejection"),
    "RejectedPositiveData": ("schemathesis.openapi.checks", "ST202", "positive_data_acceptance"),
}
# what judging reads of them besides title and message
READ = {"JsonSchemaError": ("schema_path", "instance_path", "instance", "schema"),
        "CustomFailure": ("exception",)}
_UNNAMED = "a failure would go unnamed, or be named for the wrong requirement"


@cache
def failure_classes() -> dict[str, type]:
    """FAILURES' classes by name, each checked: a schemathesis Failure with its code, reported
    by its check, with the attributes judging reads."""
    try:
        from schemathesis.core.failures import Failure

        found: dict[str, type] = {}
        for name, (module, code, check) in FAILURES.items():
            kind = getattr(import_module(module), name)
            if not (isinstance(kind, type) and issubclass(kind, Failure)):
                raise TypeError(f"{module}.{name} is not a Failure")
            if kind.code != code:
                raise ValueError(f"{name} is {kind.code}, not {code}")
            if check is not None and check not in kind.checks:
                raise ValueError(f"{name} is not reported by {check} but by {kind.checks}")
            missing = [field for field in READ.get(name, ()) if not hasattr(kind, field)]
            if missing:
                raise AttributeError(f"{name} has no {', '.join(missing)}")
            found[name] = kind
    except (ImportError, AttributeError, TypeError, ValueError) as exc:
        raise _stop("schemathesis", "its failures", exc, _UNNAMED) from None
    return found


def failure_kind(failure: Any) -> str:
    """FAILURES' name for a schemathesis failure: the first class it is an instance of. One of
    no class boardcert knows is a CompatError, never dropped: it could be the server's fault."""
    for name, kind in failure_classes().items():
        if isinstance(failure, kind):
            return name
    raise unknown_failure(failure)


def unknown_failure(failure: Any) -> CompatError:
    kind = type(failure)
    return _stop("schemathesis", "a failure of its checks",
                 f"{kind.__module__}.{kind.__qualname__} {getattr(failure, 'code', '')}: "
                 f"{getattr(failure, 'title', failure)}", _UNNAMED)


@cache
def probe_scenarios() -> tuple[frozenset[Any], frozenset[Any]]:
    """schemathesis's coverage scenarios that send a request in another shape: (to a method or
    path the operation does not have, with another content type). Checked: the same as
    schemathesis's own sets of such probes; a case's scenario, and its mode, read as data."""
    try:
        from schemathesis.generation import meta

        scenario = meta.CoverageScenario
        other_request = frozenset({scenario.UNSPECIFIED_HTTP_METHOD,
                                   scenario.UNSUPPORTED_PATH_PATTERN})
        content_type = frozenset({scenario.UNSUPPORTED_CONTENT_TYPE,
                                  scenario.MALFORMED_CONTENT_TYPE})
        shapes = content_type | {scenario.UNSPECIFIED_HTTP_METHOD}
        if content_type != meta.CONTENT_TYPE_PROBES or shapes != meta.REQUEST_SHAPE_PROBES:
            raise ValueError(f"its probes are {sorted(meta.REQUEST_SHAPE_PROBES)}, of content "
                             f"types {sorted(meta.CONTENT_TYPE_PROBES)}")
        read = {(meta.CoveragePhaseData, "scenario"), (meta.CaseMetadata, "generation"),
                (meta.CaseMetadata, "phase"), (meta.GenerationInfo, "mode")}
        missing = [f"{owner.__name__}.{name}" for owner, name in read
                   if name not in {f.name for f in fields(owner)}]
        if missing or not hasattr(meta.GenerationMode, "is_negative"):
            raise AttributeError(f"no {', '.join(missing) or 'GenerationMode.is_negative'}")
    except (ImportError, AttributeError, TypeError, ValueError) as exc:
        raise _stop("schemathesis", "its coverage scenarios", exc,
                    "a request of another shape would be judged as the operation's") from None
    return other_request, content_type


@cache
def _schemathesis_item() -> type:
    try:
        from schemathesis.pytest.plugin import SchemathesisFunction

        init = SchemathesisFunction.__init__
        if "operation_label" not in signature(init).parameters \
                or "operation_label" not in init.__code__.co_names:
            raise AttributeError("SchemathesisFunction keeps no operation_label")
    except (ImportError, AttributeError, TypeError) as exc:
        raise _stop("schemathesis", "its pytest items", exc,
                    "the property tests would name no requirements") from None
    return SchemathesisFunction


def operation_label(item: Any) -> str | None:
    """The operation a schemathesis item tests ("PATCH /projects/{projectId}"); None for an
    item of any other test."""
    return item.operation_label if isinstance(item, _schemathesis_item()) else None
