"""The games the engine plays, each a package plugged in through its GameKind."""
