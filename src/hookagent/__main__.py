"""`python -m hookagent`: the same command as the `hookagent` console script."""

from hookagent.cli._app import main

if __name__ == "__main__":
    main()
