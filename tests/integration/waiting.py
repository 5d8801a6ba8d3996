"""The one way the integration tests and their harnesses wait for something to happen:
wait_for polls a condition until it holds or a deadline passes, and says what it was
waiting for when it gives up.

A fixed time.sleep stays only where a test lets time pass on purpose (an outage's
length, a window in which nothing may happen, a backend's own latency); such a sleep
says so in a comment.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TypeVar

T = TypeVar("T")

_REPR_LIMIT = 2000


def _short(value: object) -> str:
    text = repr(value)
    return text if len(text) <= _REPR_LIMIT else text[:_REPR_LIMIT] + "...(cut)"


def wait_for(what: str, check: Callable[[], T], timeout: float, interval: float = 0.05, *,
             retry_on: tuple[type[BaseException], ...] = (),
             context: Callable[[], str] | None = None,
             error: type[Exception] = AssertionError) -> T:
    """check()'s first truthy value, polled every `interval` seconds for `timeout`
    seconds. check() runs at least once, and once more at the deadline.

    An exception from check() propagates at once (a process that exited, a document
    that does not parse) unless its type is in retry_on: then it means "not yet" (a
    server still starting refuses connections: OSError) and is kept as the last
    outcome. At the deadline raises `error` (AssertionError; a harness passes its
    HarnessError) naming `what`, the timeout and check()'s last value or exception,
    followed by context() (a log tail, say)."""
    deadline = time.monotonic() + timeout
    while True:
        raised = None
        try:
            value = check()
        except retry_on as e:
            raised = e
        else:
            if value:
                return value
        left = deadline - time.monotonic()
        if left <= 0:
            break
        time.sleep(min(interval, left))
    last = f"last raised {raised!r}" if raised is not None else f"last value {_short(value)}"
    message = f"timed out after {timeout:g} s waiting for {what}; {last}"
    if context is not None:
        message += "\n" + context()
    raise error(message) from raised
