"""vLLM's older way to start the OpenAI-compatible server,

    python -m pagoda.entrypoints.openai.api_server --model MODEL [ARGS...]

which is `pagoda serve --model MODEL [ARGS...]`: same arguments, same server."""

import sys

from pagoda.cli import run


def main() -> None:
    run(["serve", *sys.argv[1:]])


if __name__ == "__main__":
    main()
