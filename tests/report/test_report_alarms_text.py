"""How an alarm decided in stats/ is worded (report/alarms.py)."""

from __future__ import annotations

from specscope.report.alarms import render_alarm
from specscope.stats.alarms import JudgedAlarm
from specscope.stats.groups import LevelAxis


def test_not_engaged_names_the_config_not_only_its_method():
    """Found by a fresh-user check (2026-12-05): config ``eagle0`` (method eagle, 0 drafts) was worded "eagle reported
    0 drafts" beside a config ``eagle`` that did draft."""
    a = JudgedAlarm("NOT_ENGAGED", "eagle0", "prose", 2.0, "eagle", levels=(1, 4))
    alarm = render_alarm(a, {}, LevelAxis())
    assert alarm is not None
    assert alarm.found.startswith("eagle0 (eagle) reported 0 drafts in every cell on prose at N=1,4")
    same = render_alarm(JudgedAlarm("NOT_ENGAGED", "mtp", "prose", 1.0, "mtp", levels=(1,)), {}, LevelAxis())
    assert same is not None and same.found.startswith("mtp reported 0 drafts")


def test_not_engaged_does_not_call_the_speed_the_targets():
    """`make bench`'s report (fresh-user finding, 2026-12-06) said n-gram on code 'did not speculate, so its speed there
    is the target's alone' beside its comparison at 0.49x: a drafter that searched and found nothing is no longer the
    target alone. The alarm says the difference is not speculation's and sends the reader to the comparison."""
    alarm = render_alarm(JudgedAlarm("NOT_ENGAGED", "ngram", "code", 2.0, "ngram", levels=(1, 2)), {}, LevelAxis())
    assert alarm is not None
    assert "target's alone" not in alarm.found
    assert alarm.found.endswith(
        "it did not speculate, so any difference from the baseline there is not speculation's gain or loss (the "
        "drafter's search that found nothing, and noise: its comparison says which)"
    )
