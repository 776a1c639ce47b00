"""Operations: a heartbeat that makes a round trip through the task queue, and a health check."""
