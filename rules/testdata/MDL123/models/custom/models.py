class MyCustomRuntime: pass
