"""What a prompt costs and whether it fits: model facts (context window, largest output,
prices) and the budget of a count against them."""
