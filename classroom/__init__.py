"""The classroom: rooms a teacher drives and students follow, kept in a store that outlives the
app process (SQLite by default, Redis for several processes). Pure Python: no Streamlit here."""
