version https://git-lfs.github.com/spec/v1
oid sha256:9a1c4e84c8f4e0e6b7f7b4d42f2ba0c6ac5e4c84b6b5e7c9b8a6f0c1d2e3f4a5
size 12107
