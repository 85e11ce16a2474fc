"""brikwars."""
