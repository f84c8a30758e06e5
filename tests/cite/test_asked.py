"""asks_quantity / states_quantity: a question asking how long, many or much is answered only
by a text giving a quantity (a number, words, a bound, code)."""

from __future__ import annotations

import pytest

from citewise.cite.asked import asks_quantity, states_quantity

CONNECT = ("The connect timeout specifies the maximum amount of time to wait until a socket "
           "connection to the requested host is established [1].")


@pytest.mark.parametrize(("question", "kind"), [
    ("if I don't configure anything, how long does httpx wait before a request times out?",
     "long"),
    ("How many weeks of parental leave do employees get?", "many"),
    ("What is the visitor network and how often does its password change?", "often"),
    ("how do I cap how many connections one client opens at the same time?", None),
    ("how do I switch off the timeout for one call?", None),
    ("What is the default interval in seconds between automatic rescans of the font "
     "configuration?", "units"),  # a new user's: answered with the interval's definition
    ("What's the cache size limit in MB?", "units"),
    ("How do I set the timeout in seconds?", None),  # a way, not a value
    ("What is measured in seconds?", None),  # which thing, not a value (review)
    ("What are the sizes expressed in bytes?", None),
    # a new user's: answered with a sentence about unref() and no number, exit 0
    ("What is the maximum number of active timers a Node.js process can have at the same "
     "time?", "many"),
    ("What's the number of retries?", "many"),
    ("What is the number the docs recommend?", None),  # which number, not a count
])
def test_asks_quantity_finds_the_question_own_clause(question, kind) -> None:
    assert asks_quantity(question) == kind


@pytest.mark.parametrize("text", [
    "Employees get sixteen weeks [1].", "HTTPX times out after 5 seconds [S1].",
    "Records are kept for a year [1].", "There is no limit [2].",
    "Use `borg info` to see it [1].", "You can see the entire length of the lake [1].",
    "Two thirds of the flow [1].",
    # libtasn1 (Info quotes code 'so'): a new user's "how large must the errorDescription
    # buffer be?" was declined, no sentence giving a quantity
    "It points to a pre-allocated buffer of at least 'ASN1_MAX_ERROR_DESCRIPTION_SIZE' bytes.",
])
def test_quantities_in_numbers_words_bounds_and_code(text) -> None:
    assert states_quantity(text)


def test_a_definition_and_a_citation_number_give_no_quantity() -> None:
    assert not states_quantity(CONNECT)  # "until" is in it, and [1] is no value
    assert not states_quantity("The password changes often [S12].")
    assert not states_quantity("The buffer holds the description in bytes [1].")
    assert not states_quantity("The user_id bytes are hashed before storage [1].")  # a review


def test_a_whole_is_no_value_in_units() -> None:
    text = "Fontconfig validates all of the configuration files when this interval passes [1]."
    assert states_quantity(text, "long") and not states_quantity(text, "units")
    assert states_quantity("It rescans every 30 seconds [1].", "units")


def test_a_recurrence_answers_how_often_only() -> None:
    text = "The visitor Wi-Fi password changes every Monday [1]."
    assert states_quantity(text, "often") and not states_quantity(text, "long")
