"""`python -m cairn.mcp_server`: serve the tools over stdio."""

from cairn.mcp_server.run import main

main()
