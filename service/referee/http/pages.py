"""The HTML pages (`/docs`, `/play/{game}`): each built once, then served as bytes with headers that keep a
browser from doing anything the page does not need.

The pages carry their CSS and JavaScript inline (no external assets, no build step), so the policy
allows exactly those blocks by their SHA-256 (and the style blocks of the pictures the playground draws),
and nothing else: no other script, no style attribute, no plugin, no frame, no form target, no base URL,
fetches to this origin only."""

from __future__ import annotations

import base64
import hashlib
import re
from typing import Callable, Iterable

from flask import Response, current_app

__all__ = ["Page", "SECURITY_HEADERS", "built", "source"]

INLINE_SCRIPT = re.compile(r"<script>(.*?)</script>", re.S)
INLINE_STYLE = re.compile(r"<style>(.*?)</style>", re.S)

#: Headers of every HTML page besides its policy.
SECURITY_HEADERS = {"X-Frame-Options": "DENY", "Referrer-Policy": "no-referrer"}


def source(texts: Iterable[str]) -> str:
    """A CSP source list allowing exactly these inline blocks, or none."""
    digests = [
        "'sha256-" + base64.b64encode(hashlib.sha256(text.encode()).digest()).decode() + "'" for text in texts
    ]
    return " ".join(digests) or "'none'"


def policy(html: str, styles: Iterable[str] = ()) -> str:
    """The Content-Security-Policy of a page: its own inline scripts and styles, and `styles` (those of
    markup it inserts, such as an SVG picture's)."""
    return "; ".join([
        "default-src 'none'",
        f"script-src {source(INLINE_SCRIPT.findall(html))}",
        f"style-src {source([*INLINE_STYLE.findall(html), *styles])}",
        "img-src 'self'",
        "connect-src 'self'",
        "base-uri 'none'",
        "form-action 'none'",
        "frame-ancestors 'none'",
    ])


class Page:
    """A page built once: its bytes and its headers."""

    def __init__(self, html: str, styles: Iterable[str] = ()) -> None:
        self.body = html.encode()
        self.headers = {"Content-Security-Policy": policy(html, styles), **SECURITY_HEADERS}

    def response(self) -> Response:
        return Response(self.body, mimetype="text/html", headers=self.headers)


def built(key: str, build: Callable[[], Page]) -> Page:
    """The app's page `key`, built by `build` on its first request and kept (an app's pages never change
    while it runs; they depend on its settings, so each app keeps its own)."""
    pages = current_app.extensions.setdefault("referee.http.pages", {})
    if key not in pages:
        pages[key] = build()
    return pages[key]
