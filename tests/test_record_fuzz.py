"""Issue 15: a bounded fuzz test of the record parsers (Hypothesis).

Worked-example records, in both forms, are mutated (bytes replaced,
inserted, deleted, slices repeated, brackets piled up) and read back with
every reader the commands use: the only outcomes allowed are a record or a
one-line :class:`~marjolet.errors.RecordError`, never another exception, a
hang or a ``RecursionError``. ``max_examples`` bounds the time (a few
seconds in ``make test``)."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from marjolet import record
from marjolet.errors import RecordError
from test_records import EXAMPLE_FILES


def _seeds() -> list[bytes]:
    """The readable worked examples (some are invalid on purpose), both forms."""
    out: list[bytes] = []
    for path in EXAMPLE_FILES:
        try:
            rec = record.load(path, check=False)
        except RecordError:
            out.append(path.read_bytes())
            continue
        out += [rec.dumps().encode(), rec.to_text().encode()]
    return out


SEEDS = _seeds()

NASTY = [b"[", b"{", b"]", b"}", b'"', b"\\", b"\xef\xbb\xbf", b"\xff", b"\x00", b"\n", b"meld",
         b"deal 1\n", b"deck ", b"1e999", b"-0", b"[" * 200, b"[" * 5000, b"#"]


@st.composite
def mutated(draw: st.DrawFn) -> bytes:
    data = bytearray(draw(st.sampled_from(SEEDS)))
    for _ in range(draw(st.integers(1, 6))):
        at = draw(st.integers(0, len(data)))
        op = draw(st.sampled_from(["replace", "insert", "delete", "repeat"]))
        size = draw(st.integers(1, 40))
        if op == "delete":
            del data[at : at + size]
        elif op == "repeat":
            data[at:at] = data[at : at + size] * draw(st.integers(2, 50))
        else:
            piece = draw(st.one_of(st.sampled_from(NASTY), st.binary(min_size=1, max_size=size)))
            if op == "replace":
                data[at : at + len(piece)] = piece
            else:
                data[at:at] = piece
    return bytes(data)


def read_all_ways(data: bytes) -> None:
    """Every reader: bytes to text, both parse modes, replay."""
    try:
        text = record.decode(data)
        for check in (False, True):
            rec = record.loads(text, check=check)
            record.replay(rec)
            assert record.loads(rec.dumps(), check=False) == rec
    except RecordError as exc:
        assert "\n" not in str(exc)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(mutated())
def test_record_parsers_survive_mutated_records(data: bytes) -> None:
    read_all_ways(data)


@settings(max_examples=200, deadline=None)
@given(st.binary(max_size=300))
def test_record_parsers_survive_random_bytes(data: bytes) -> None:
    read_all_ways(data)
