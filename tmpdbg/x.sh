cat /proc/diskstats | grep nvme
fio --name=x --filename=/mnt/x --size=8m --rw=randread --bs=4k --direct=1 --ioengine=psync --thread --runtime=5 --time_based 2>&1 | grep -E 'issued|READ|nvme|Lay'
cat /proc/diskstats | grep nvme
filefrag -v /mnt/x | head
cat /sys/block/nvme0n1/queue/scheduler
