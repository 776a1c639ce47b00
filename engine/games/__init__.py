"""The games; every module here registers its game with engine.registry."""
