"""The lecture's ideas over any tokenizer: the fewest-token encoding, cost by script."""
