"""Defaults the evaluation library and `swift-gym eval` share.

A module of its own, of constants only, so the command can show them in `--help` without
importing the library's heavier parts (httpx).
"""

from __future__ import annotations

EPISODES = 100
"""Episodes per env config when no dataset says how many."""
MAX_TURNS = 10
"""Replies per episode at most, as in ms-swift's FrozenLake recipe (`--max_turns`)."""
CONCURRENCY = 32
"""Episodes played at the same time."""
BASE_URL = "http://127.0.0.1:8000/v1"
"""Where `swift deploy` and vLLM listen by default."""
MAX_TOKENS = 256
"""Tokens per reply: room for a short thought and an action tag (ms-swift's FrozenLake recipe
caps a turn at 512). Without a cap a server may generate up to its whole context on every turn:
minutes on a CPU, and a context overflow."""
TIMEOUT = 120.0
"""Seconds one request may take, waiting in the server's queue included."""
RETRIES = 6
"""With the openai SDK's backoff of 0.5, 1, 2, 4, 8 and 8 s (each up to a quarter shorter), a
request rides out a server restart of about 20 s."""
