"""Tortuga by Mail: the play-by-mail service around the pure rules engine."""
