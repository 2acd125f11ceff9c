"""The interface and the policy as data, read once from spec/ and docs/.

- `spec`: spec/openapi.yaml by operation number; `requirements`: the catalogue
  (spec/requirements.yaml); `policy`: docs/policy.md by paragraph, for the readings;
- `removed`: the former paths of section 9; `revisions`: which revision a server matches;
- `resources`: what each operation creates and deletes; `conditions`: what makes a failure,
  as data a reproduction judges again; `placeholders`: the "{placeholder}" templates.
The lowest room but one: it imports only the package's own modules.
"""

__all__ = [
    "conditions",
    "placeholders",
    "policy",
    "removed",
    "requirements",
    "resources",
    "revisions",
    "spec",
]
