"""Waiting for the page to draw what it has just been told: two animation frames, so that
what runs after layout (a ResizeObserver, a live redraw) has run before the test looks."""

from __future__ import annotations

TWO_FRAMES = "new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done)))"


def frames_pass(page) -> None:
    page.evaluate(TWO_FRAMES)
