"""A question that calls two words a command names that command: when the top passages give
the program other subcommands but never that one, the gate has a missing term (a new user's
"which git version added the git squash command?" was answered by the local model, "Git 2.23
added the git squash command. [1]")."""

from __future__ import annotations

from citewise.answer.asked_commands import missing_commands
from citewise.answer.salient import missing_terms

from .conftest import make_hit

NOTES = ['* Two new commands "git switch" and "git restore" are introduced.',
         '* "git merge --squash" now refuses to work with "--commit".',
         "* The output of\n\n    $ git log --oneline\n\nis shorter now."]
HITS = [make_hit(text, i) for i, text in enumerate(NOTES, start=1)]


def test_a_subcommand_the_passages_never_give_is_missing() -> None:
    assert missing_terms("which git version added the git squash command?", HITS) == \
        ["git squash"]
    assert missing_terms("is there a git undo command?", HITS) == ["git undo"]


def test_two_words_asked_of_as_a_command_without_the_word_name_one() -> None:
    """A new user of git's documentation: "what does git undo do" and "how do I use git sync
    to update my fork" were answered (from git revert and git pull)."""
    assert missing_terms("what does git undo do?", HITS) == ["git undo"]
    assert missing_terms("how do I use git sync to update my fork", HITS) == ["git sync"]
    for question in ("what does git switch do?", "What does the git log do here?",
                     "how do I use git log to find a commit?", "what does the new git "
                     "command do?", "what does it do?", "what does this git thing do?",
                     "What does git actually do?", "run git twice to be sure",
                     "use git instead to track it", "what does git really do"):
        assert missing_terms(question, HITS) == [], question


def test_subcommands_the_passages_give_or_words_that_are_no_program_pass() -> None:
    for question in ("what does the git switch command do?",
                     "how is the git log command's output shorter?",
                     "what does the new git command do?",  # "new" is no program here
                     "how do I run a shell command?", "which git version added git switch?",
                     "what does the squash command do?"):  # one word: no program named
        assert missing_terms(question, HITS) == [], question


def test_a_program_needs_several_subcommands_in_the_passages() -> None:
    text = '"make install" copies the files.'.lower()
    assert missing_commands("what does the make uninstall command do?", text) == []
    wrapped = '* "git\nswitch", "git restore", "git fetch" and "git log" are new.'.lower()
    assert missing_commands("the git switch command?", wrapped) == []  # a wrapped line


def test_a_command_the_passages_list_as_an_alias_passes() -> None:
    """The review of this stop: "what does the npm ln command do?" was declined, npm-link's
    synopsis saying ``alias: ln`` (and npm-run's ``aliases: run-script, rum, urn``)."""
    text = ('npm link [<package-spec>]\n\nalias: ln\n\n"npm install x"\n$ npm run build\n'
            "$ npm exec y\naliases: run-script, rum, urn\n").lower()
    for question in ("what does the npm ln command do?", "the npm run-script command?"):
        assert missing_commands(question, text) == [], question
    assert missing_commands("what does the npm restore command do?", text) == ["npm restore"]
