"""Background tasks: sync, OCR, vectorisation, rebuild and graph jobs (``manager.py``) on the
task lanes (``runner.py``), with throttled progress notifications, cancellation, and history in
SQLite (interrupted tasks say so after a restart)."""
