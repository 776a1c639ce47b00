"""The ``arena`` command: a local runner of sandboxed bots (``play``, ``validate``, ``view``,
``verify``, ``transcript``, ``games``, ``runtimes``) and the server's client (``login``,
``submit``, ``status``, ``challenge``, ``replay``), in English and Korean.

A client of ``sandbox`` (which runs strangers' code) and of ``engine``; neither imports it.
"""
