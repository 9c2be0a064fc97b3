from mcp_review.demo.server import main

main()
