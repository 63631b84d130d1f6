"""What a command printed, as the one-line-error tests read it."""

PLANNING = "progress: planning "


def printed_lines(text: str) -> list[str]:
    """The lines of ``text`` after the ``progress: planning …`` line that `run` and `reproduce` print first,
    before the datasets load (and any mistake in them can show): the error, where one is expected."""
    lines = text.strip().splitlines()
    return lines[1:] if lines and lines[0].startswith(PLANNING) else lines
