"""The server's scheduling, without Streamlit: fair turns at the cores (turns.py), one pass for
the tokens many sessions ask for together (batches.py), a session's likely next request done
before it asks (ahead.py), and the tiny model's training runs shared by the server, trained in a
child process (training.py)."""
