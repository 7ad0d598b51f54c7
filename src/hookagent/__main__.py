"""`python -m hookagent`: the same command as the `hookagent` console script."""

from hookagent.cli.app import main

if __name__ == "__main__":
    main()
