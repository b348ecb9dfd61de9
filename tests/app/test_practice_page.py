"""The learner writes attention (issue 66), in AppTest: on /practice and under the walkthrough's
steps, a wrong line is named by its mistake in the learner's language and stays in its box, the
right one is right, a hostile one is refused in words (never run, never a traceback), the hint
waits for a first try, and the maps drawn hold core.practice's own numbers."""

import numpy as np
import pytest

import core
from core import practice
from tests.support.app import chart_titled, charts, decode, page_text, run_app
from ui.kit.i18n import DEFAULT_SENTENCE, error_text, t
from ui.kit.number_text import power_of_ten
from ui.work.traces import TraceKey, sentence_trace

WRONG, RIGHT, HOSTILE = (
    "softmax(S_masked, axis=0)",
    "softmax(S_masked, axis=-1)",
    "__import__('os')",
)


def _data(lang: str, n_heads: int = 2):
    """The trace the pages draw with the default settings (the language's own sentence)."""
    return sentence_trace(TraceKey(DEFAULT_SENTENCE[lang], "auto", 8, n_heads, 0, True, "none"))


def _check(at, step: str, line: str):
    at.text_input(key=f"practice_line_{step}").input(line)
    at.button(key=f"practice_check_{step}").click().run()
    assert not at.exception
    return at


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_a_wrong_line_is_named_then_the_right_one_is_right(lang):
    at = run_app("practice", lang=lang, task="A")
    assert not at.exception and at.button_group(key="task").value == "A"
    assert not charts(at) and not [b for b in at.button if b.key == "practice_hint_A"]
    _check(at, "A", WRONG)
    assert at.error[0].value == t("practice.not_yet", lang,
                                  why=t("practice.mistake_wrong_axis", lang))  # fmt: skip
    assert at.text_input(key="practice_line_A").value == WRONG  # kept in the box
    card = at.button(key="practice_see_mistakes_wrong-axis")
    assert t("mistakes.axis_title", lang) in card.label
    _check(at, "A", RIGHT)
    data = _data(lang)
    verdict = practice.check("A", RIGHT, data.trace, 0, data.W)
    assert verdict.ok and at.success[0].value == t(
        "practice.right", lang, name="`A`", diff=power_of_ten(verdict.difference)
    )
    assert at.text_input(key="practice_line_A").value == RIGHT
    assert not [b for b in at.button if b.key == "practice_hint_A"]  # right: no hint now
    assert at.button(key="practice_next").label == t("practice.next", lang,
                                                     step=t("practice.step_O", lang))  # fmt: skip


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_learners_map_holds_core_practices_numbers(lang):
    at = _check(run_app("practice", lang=lang, task="A"), "A", WRONG)
    data = _data(lang)
    verdict = practice.check("A", WRONG, data.trace, 0, data.W)
    yours = decode(chart_titled(at, t("practice.chart_yours", lang, name="A"))["data"][0]["z"])
    assert np.allclose(yours, verdict.value, atol=1e-6)  # (sent as float32)
    right = decode(chart_titled(at, t("practice.chart_right", lang, name="A"))["data"][0]["z"])
    assert np.allclose(right, data.trace.A[0], atol=1e-6)
    diff = decode(chart_titled(at, t("practice.chart_difference", lang))["data"][0]["z"])
    assert np.allclose(diff, verdict.value - data.trace.A[0], atol=1e-6)
    assert list(chart_titled(at, t("practice.chart_yours", lang, name="A"))["data"][0]["x"])


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_a_hostile_line_is_refused_in_words(lang):
    at = _check(run_app("practice", lang=lang, task="S"), "S", HOSTILE)
    refused = error_text(core.InputError("practice_forbidden", what="__import__(…)"), lang)
    assert at.warning[0].value.replace("\\", "") == refused
    assert at.text_input(key="practice_line_S").value == HOSTILE
    assert not charts(at) and "Traceback" not in page_text(at)


def test_a_missing_transpose_says_which_and_links_its_card():
    at = _check(run_app("practice", lang="zh", task="S"), "S", "Q @ K")
    assert t("practice.transpose", "zh", fix="K") in at.warning[0].value
    card = at.button(key="practice_see_mistakes_no-transpose")
    assert t("mistakes.transpose_title", "zh") in card.label
    card.click().run()  # the mistakes page, landing on the card's heading
    assert not at.exception
    assert t("mistakes.transpose_title", "zh") in [h.value for h in at.subheader]
    landing = [h.proto.body for h in at.get("html") if "scrollIntoView" in h.proto.body]
    assert landing and '"no-transpose"' in landing[0]


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_mask_forgotten_says_where_the_infinities_differ(lang):
    """S_scaled for S_masked under the causal mask: the −∞ entries are missing, so the largest
    difference is infinite; the verdict says so in words, not as a number (or a traceback)."""
    at = _check(run_app("practice", lang=lang, task="S_masked", mask="causal"), "S_masked",
                "S_scaled")  # fmt: skip
    assert any(t("practice.infinities_differ", lang) in e.value for e in at.error), at.error


def test_the_hint_comes_after_a_try_and_never_gives_the_line():
    at = _check(run_app("practice", lang="en", task="S"), "S", "Q @ Q.T")
    assert at.error[0].value == t("practice.not_yet", "en",
                                  why=t("practice.mistake_wrong_matrix", "en"))  # fmt: skip
    at.button(key="practice_hint_S").click().run()
    hint = at.info[0].value
    assert hint == t("practice.hint_S", "en") and "K.T" not in hint and "Q @" not in hint


def test_a_steps_line_comes_back_with_the_step_and_the_head_is_in_the_url():
    at = _check(run_app("practice", lang="en", task="S", head=1), "S", "Q @ K.T")
    assert at.button_group(key="practice_head").value == 1 and at.success  # head 1's S
    at.button_group(key="task").set_value("O").run()
    assert at.query_params["task"] == "O" and not at.success
    at.button_group(key="task").set_value("S").run()
    assert at.text_input(key="practice_line_S").value == "Q @ K.T" and at.success
    bad = run_app("practice", lang="en", task="nonsense")
    assert not bad.exception and bad.button_group(key="task").value == "Q"
    assert "task=nonsense" in bad.warning[0].value


def test_every_check_is_recorded_once_for_the_room(monkeypatch):
    import ui.room.practice

    seen = []

    def record(settings, step, verdict, head=None):
        seen.append((step, verdict.ok, head))

    monkeypatch.setattr(ui.room.practice, "record", record)
    at = _check(run_app("practice", lang="en", task="S"), "S", "Q @ Q.T")
    at.button(key="practice_hint_S").click().run()  # a rerun, no new check
    _check(at, "S", "Q @ K.T")
    assert seen == [("S", False, 0), ("S", True, 0)]


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_walkthrough_folds_the_exercise_under_its_step_for_its_head(lang):
    at = run_app("walkthrough", lang=lang, step="scores", head=1)
    assert t("practice.folded", lang) in [e.label for e in at.expander]
    assert "practice_line_S" not in {box.key for box in at.text_input}  # closed: not drawn
    at.session_state["practice_fold_S"] = True  # the learner opens it
    at.run()
    _check(at, "S", "Q @ K.T")
    assert at.success[0].value.startswith(t("practice.right", lang, name="`S`", diff="")[:6])
    data = _data(lang)
    yours = decode(chart_titled(at, t("practice.chart_yours", lang, name="S"))["data"][0]["z"])
    assert np.allclose(yours, data.trace.S[1], atol=1e-5)  # the page's head, not head 0
    heads = run_app("walkthrough", lang=lang, step="heads")
    heads.session_state["practice_fold_concat"] = True
    heads.run()
    heads.button_group(key="practice_pick_concat").set_value("output").run()
    _check(heads, "output", "concat @ W_O")
    assert heads.success
    for step in ("tokens", "block"):  # no line to write there
        assert t("practice.folded", lang) not in [e.label for e in run_app(step=step).expander]
    projected = run_app("walkthrough", lang=lang, step="scores", big="true")
    assert t("practice.folded", lang) not in [e.label for e in projected.expander]


def test_the_projector_draws_the_maps_at_its_sizes():
    at = _check(run_app("practice", lang="zh", task="A", big="true"), "A", WRONG)
    fonts = [spec["layout"].get("font", {}).get("size") for spec in charts(at)]
    assert len(fonts) == 3 and all(size and size >= 18 for size in fonts)
