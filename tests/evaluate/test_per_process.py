"""`evaluate.backends.per_process`: what a worker process builds once per key, one value a slot."""

from __future__ import annotations

from evaluate.backends import forget, per_process


def test_a_slot_builds_once_per_key_and_a_new_key_replaces_the_old():
    built = []

    def build(tag):
        def make():
            built.append(tag)
            return [tag]
        return make

    a = per_process("t-slot", ("run", 1), build("a"))
    assert per_process("t-slot", ("run", 1), build("again")) is a and built == ["a"]
    b = per_process("t-slot", ("run", 2), build("b"))  # another run's key: built anew
    assert b == ["b"] and built == ["a", "b"]
    other = per_process("t-other", ("run", 1), build("c"))  # slots are independent
    assert per_process("t-slot", ("run", 2), build("x")) is b and other == ["c"]
    forget("t-slot")
    assert per_process("t-slot", ("run", 2), build("d")) == ["d"] and built == ["a", "b", "c", "d"]
    forget("t-slot")
    forget("t-other")
    forget("never used")  # nothing to drop: no error
