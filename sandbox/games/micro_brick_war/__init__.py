"""micro_brick_war."""
