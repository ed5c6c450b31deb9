"""Languages other than English: the game's glossary, Korean dates (more to come, issue 24)."""
