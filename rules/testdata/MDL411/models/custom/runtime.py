class CustomRuntime:
    pass
