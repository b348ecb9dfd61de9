"""How a latecomer finds the room: the app's address as this browser reached it, and a QR code."""

import io
from urllib.parse import urlsplit

import segno
import streamlit as st


def base_url() -> str:
    """The app's address as this browser reached it (scheme, host, port), without a path."""
    try:
        parts = urlsplit(st.context.url or "")
    except Exception:  # no browser (AppTest)
        return "http://localhost:8501"
    return f"{parts.scheme}://{parts.netloc}" if parts.netloc else "http://localhost:8501"


def qr_png(text: str) -> bytes:
    """A QR code of ``text`` as PNG bytes, made here by segno (nothing fetched)."""
    out = io.BytesIO()
    segno.make(text, error="m").save(out, kind="png", scale=8, border=2)
    return out.getvalue()
