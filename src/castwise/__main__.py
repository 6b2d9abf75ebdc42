"""``python -m castwise``: the same command as ``castwise``."""

from castwise.cli import main

if __name__ == "__main__":
    main()
