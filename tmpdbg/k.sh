insmod $IOLAYERS_MODULE_DIR/iolayers_kunit.ko
echo ==== results
for f in /sys/kernel/debug/kunit/*/results; do echo "== $f"; cat $f; done
