"""The app's Streamlit side, in layers (README, "Where things live"): views (a page's sections) →
room (a class on every page) → shell (registry, sidebar, style) → figures (Plotly) → kit (what
knows no page: settings, URL, strings, numbers, cached traces)."""
