"""Celery app and thin, idempotent tasks that advance every game."""
