"""brigandine."""
