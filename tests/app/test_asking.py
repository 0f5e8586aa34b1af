"""Asking several configurations at once (`webapp.asking`): streamed results and each configuration's conversation."""

from __future__ import annotations

from rag.config import PRESETS
from rag.results import AnswerResult
from webapp.asking import Turn, ask_all, conversation_histories, conversation_history, stream_turn
from webapp.engine import (
    apply_choices,
)


def test_ask_all_gives_every_result_in_configuration_order_and_isolates_a_failure(fixture_index) -> None:  # type: ignore[no-untyped-def]
    from rag.runner import Engine

    engine = Engine(fixture_index, default_llm="extractive")
    broken = PRESETS["C0"].__class__(name="broken", generator="groq:x")
    configs = apply_choices([PRESETS["C0"], PRESETS["full"], broken], generator="extractive")
    results = ask_all(engine, "What is the page_size parameter of list orders?", configs)
    assert [r.config for r in results] == ["C0", "full", "broken"]
    assert results[0].ok and results[1].ok
    assert results[2].errors


def test_stream_turn_passes_on_the_text_as_a_streaming_generator_writes_it(fixture_index) -> None:  # type: ignore[no-untyped-def]
    from rag.generate.base import Generation, StreamEvent
    from rag.runner import Engine

    class Streaming:
        name = "fake:stream"

        def generate(self, request):  # type: ignore[no-untyped-def]
            return Generation("Hello world", generator=self.name)

        def stream(self, request):  # type: ignore[no-untyped-def]
            yield StreamEvent("token", "Hello ")
            yield StreamEvent("token", "world")
            yield StreamEvent("done", generation=Generation("Hello world", generator=self.name))

    engine = Engine(fixture_index, default_llm="fake:stream", generator_factory=lambda spec: Streaming())
    texts: list[tuple[str, str]] = []
    turn = stream_turn(engine, "list orders", [PRESETS["C0"]], None, (False, "fake:stream", 5),
                       lambda config, text: texts.append((config, text)), lambda result, count: None)
    assert texts == [("C0", "Hello "), ("C0", "Hello world")]
    assert [r.answer for r in turn.results] == ["Hello world"]


def test_conversation_history_uses_the_first_usable_answer_with_the_operation_it_is_about() -> None:
    """The answer's subject (a structural id) goes with it: a follow-up reads it, not the answer's text."""
    about = "hris.paths./unified/hris/employees.get"
    turn = Turn("first?", ["C0", "full"], False, "extractive", 5,
                [AnswerResult("C0", "first?", errors=["x"]),
                 AnswerResult("full", "first?", answer="the answer", subject=about)])
    assert conversation_history([turn]) == [{"role": "user", "content": "first?"},
                                            {"role": "assistant", "content": "the answer", "subject": about}]


def test_each_configuration_continues_its_own_conversation() -> None:
    from webapp.asking import Turn, conversation_history

    turn = Turn("Can I create a course in the LMS API?", ["C0", "full"], False, "extractive", 5, [
        AnswerResult(config="C0", question="q", answer="\"/unified/lms/courses\": { [1]"),
        AnswerResult(config="full", question="q", answer="There is no endpoint to create courses [1]."),
    ])  # fmt: skip
    assert conversation_history([turn], "full")[1]["content"] == "There is no endpoint to create courses [1]."
    assert conversation_history([turn], "C0")[1]["content"].startswith('"/unified/lms/courses"')
    assert conversation_history([turn], "E2") == [{"role": "user", "content": "Can I create a course in the LMS API?"}]


def test_stream_turn_drives_the_stream_and_leaves_drawing_to_the_caller(fixture_index) -> None:  # type: ignore[no-untyped-def]
    from rag.runner import Engine

    engine = Engine(fixture_index, default_llm="extractive")
    configs = apply_choices([PRESETS["C0"], PRESETS["full"]], generator="extractive")
    texts: list[tuple[str, str]] = []
    finished: list[tuple[str, int]] = []
    turn = stream_turn(engine, "What is the page_size parameter of list orders?", configs,
                       conversation_histories([], configs), (False, "extractive", 5),
                       lambda config, text: texts.append((config, text)),
                       lambda result, count: finished.append((result.config, count)))
    assert sorted(name for name, _ in finished) == ["C0", "full"] and [n for _, n in finished] == [1, 2]
    assert [r.config for r in turn.results] == ["C0", "full"]  # in configuration order, whichever finished first
    assert turn.configs == ["C0", "full"] and turn.k == 5 and 0 < turn.seconds < 600
    assert all(text for _, text in texts)  # streamed text, if any, is the answer so far


def test_each_configuration_gets_its_own_history() -> None:
    turn = Turn("first?", ["C0", "full"], False, "extractive", 5,
                [AnswerResult("C0", "first?", answer="c0 answer"), AnswerResult("full", "first?", answer="full")])
    histories = conversation_histories([turn], [PRESETS["C0"], PRESETS["full"]])
    assert histories["C0"][1]["content"] == "c0 answer" and histories["full"][1]["content"] == "full"
