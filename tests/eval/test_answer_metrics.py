"""SQuAD-style correctness and claim counting, against hand-computed numbers."""

import pytest

from citewise.eval.answer_metrics import (
    contains_reference,
    count_claims,
    max_token_f1,
    normalize_answer,
    token_f1,
    unsupported_claim_rate,
)


def test_normalize_like_squad():
    assert normalize_answer("The  Rhine, River!") == "rhine river"
    assert normalize_answer("an apple a day") == "apple day"


def test_token_f1_hand_computed():
    # pred: [rhine, river, delta] ref: [rhine, delta]: common 2, P 2/3, R 1
    assert token_f1("the Rhine river delta", "Rhine delta") == pytest.approx(
        2 * (2 / 3) * 1 / (2 / 3 + 1))
    assert token_f1("", "") == 1.0 and token_f1("", "x") == 0.0 and token_f1("a b", "c") == 0.0
    # duplicates count as a multiset: pred [x, x] vs ref [x]: common 1, P 1/2, R 1
    assert token_f1("x x", "x") == pytest.approx(2 / 3)
    assert max_token_f1("Rhine", ["Danube", "the Rhine"]) == 1.0
    assert max_token_f1("Rhine", []) == 0.0


def test_containment_is_whole_token():
    assert contains_reference("It flows 1,230 km to the sea.", ["1,230 km"]) == 1.0
    assert contains_reference("It is 11,230 km long", ["1,230 km"]) == 0.0
    assert contains_reference("anything", [""]) == 0.0


@pytest.mark.parametrize(("answer", "reference"), [  # the eval runs' answers, abridged
    ("The value --fair-sched=yes activates a fair scheduler.", "--fair-sched"),
    (">>> auth = httpx.BasicAuth(username=\"finley\", password=\"secret\")", "httpx.BasicAuth"),
    ("written to the default output file, cachegrind.out.<pid>.", "cachegrind.out."),
    ("transport = httpx.HTTPTransport(uds=\"/var/run/docker.sock\")",
     'uds="/var/run/docker.sock"'),
    ("export BORG_PASSPHRASE='my super secret passphrase'", "BORG_PASSPHRASE"),
    ("Set `trust_env=False` on the client [1].", "trust_env=False"),
])
def test_an_answer_stating_an_option_or_name_contains_it(answer, reference):
    assert contains_reference(answer, [reference]) == 1.0


@pytest.mark.parametrize(("answer", "reference"), [
    ("Use a suppressions-file.", "--suppressions="),  # another token, not the option
    ("Pass --trace to it.", "--trace-children"),
    ("httpx.BasicAuthentication is not a class.", "httpx.BasicAuth"),
])
def test_part_of_a_token_is_not_the_reference(answer, reference):
    assert contains_reference(answer, [reference]) == 0.0


def test_claims_and_unsupported_rate():
    text = "Timeouts default to 5 seconds [1]. Set timeout=None to disable [2]. Done."
    assert count_claims(text) == 3
    assert unsupported_claim_rate(text, 1) == pytest.approx(1 / 3)
    assert unsupported_claim_rate(text, 7) == 1.0
    assert unsupported_claim_rate("", 1) == 0.0


def test_unsupported_claims_shown_counts_what_reaches_the_reader() -> None:
    from citewise.eval.answer_metrics import unsupported_claims_shown

    record = {"answer": "A [1]. B. C [S9].", "unsupported": [{"sentence": "A [1]."}],
              "uncited": [{"sentence": "B."}], "fabricated": ["S9"]}
    assert unsupported_claims_shown(record) == 3.0
    assert unsupported_claims_shown({"answer": "fine [1]."}) == 0.0
