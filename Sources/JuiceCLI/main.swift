print("juice: not built yet")
