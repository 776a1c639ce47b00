"""The ladder queue's limits, read by its scheduler (``tournaments.services``) and by the
benchmark's model of it (``benchmarks/ranking.py``)."""

#: ladder back-pressure: a bot's pending matches at most (a slow bot cannot fill the queue)
MAX_PENDING_PER_BOT = 2
#: the ladder's pending matches at most when no worker beats to say how many it plays at once
#: (inline execution: the quick start's ``play_ladder`` loop plays them between two top-ups);
#: ``ARENA_LADDER_QUEUE_DEPTH`` overrides both (``tournaments.services.ladder_queue_depth``)
DEFAULT_QUEUE_DEPTH = 8
