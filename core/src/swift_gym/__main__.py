"""`python -m swift_gym`: the `swift-gym` command, for environments without the script on PATH."""

from swift_gym.cli import main

if __name__ == "__main__":
    main()
