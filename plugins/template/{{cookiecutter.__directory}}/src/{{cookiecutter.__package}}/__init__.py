"""The `{{ cookiecutter.env_name }}` env for swift-gym (registered in pyproject.toml)."""

from .config import {{ cookiecutter.__class }}Config
from .env import {{ cookiecutter.__class }}Env, parse_guess

__version__ = "0.1.0"
__all__ = [
    "{{ cookiecutter.__class }}Config",
    "{{ cookiecutter.__class }}Env",
    "__version__",
    "parse_guess",
]
