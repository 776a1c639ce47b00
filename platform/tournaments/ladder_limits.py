"""The ladder queue's limits, in a module of their own: the settings read the default depth,
and importing the matchmaking there (numpy, scipy) would add a second to every process's start.
"""

#: ladder back-pressure: a bot's pending matches at most (a slow bot cannot fill the queue)
MAX_PENDING_PER_BOT = 2
#: the ladder's pending matches at most, unless the deployment says otherwise
#: (``ARENA_LADDER_QUEUE_DEPTH``)
DEFAULT_QUEUE_DEPTH = 8
