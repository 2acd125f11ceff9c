"""What builds the committed files that the code generates (not part of the boardcert package):
`requirement_tests.py` writes spec/requirement-tests.yaml, `requirements_page.py` writes
docs/requirements.md; tests/test_suite_catalogue.py and tests/test_requirements_page.py fail
when either is stale."""
