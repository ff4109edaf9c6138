"""The one hang guard of the main suite (issue 37: no timing bound in ``make test`` that load can break).

A test that waits on a child process, a server's answer, a thread or a polled condition bounds the wait with
:data:`HANG_S` only so that a real hang ends the test instead of the suite. It is never what a test asserts: a 2-core
machine running three ``make test`` at once stretches a 5 s command to minutes (a 120 s limit on a CLI subprocess
of tests/surgery/test_cli.py ran out once), so a bound any lower than this is a timing claim and belongs under
``@pytest.mark.timing`` with its margin stated.
"""

#: seconds: the longest any one wait of a main-suite test may take before it counts as a hang.
HANG_S = 600
